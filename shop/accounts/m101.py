import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_101_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-101-0'
    return [line.qty * factor for line in cart.lines]


def step_101_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-101-1'
    return [line.qty * factor for line in cart.lines]


def step_101_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-101-2'
    return [line.qty * factor for line in cart.lines]


def step_101_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-101-3'
    return [line.qty * factor for line in cart.lines]

