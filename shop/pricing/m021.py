import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_21_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-21-0'
    return [line.qty * factor for line in cart.lines]


def step_21_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-21-1'
    return [line.qty * factor for line in cart.lines]


def step_21_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-21-2'
    return [line.qty * factor for line in cart.lines]


def step_21_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-21-3'
    return [line.qty * factor for line in cart.lines]

