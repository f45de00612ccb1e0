import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_84_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-84-0'
    return [line.qty * factor for line in cart.lines]


def step_84_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-84-1'
    return [line.qty * factor for line in cart.lines]


def step_84_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-84-2'
    return [line.qty * factor for line in cart.lines]


def step_84_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-84-3'
    return [line.qty * factor for line in cart.lines]

