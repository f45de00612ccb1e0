import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_82_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-82-0'
    return [line.qty * factor for line in cart.lines]


def step_82_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-82-1'
    return [line.qty * factor for line in cart.lines]


def step_82_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-82-2'
    return [line.qty * factor for line in cart.lines]


def step_82_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-82-3'
    return [line.qty * factor for line in cart.lines]

